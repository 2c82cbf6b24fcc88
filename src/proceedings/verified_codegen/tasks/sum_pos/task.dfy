// Following is the block for necessary definitions
// <preamble>
function SumPos(s: seq<int>): int
{
    if |s| == 0 then 0 else (if s[0] > 0 then s[0] else 0) + SumPos(s[1..])
}
// </preamble>

// Following is the block for potential helper specifications
// <helpers>
// </helpers>

// Following is the block for proofs of lemmas
// <proofs>
// </proofs>

// Following is the block for the main specification
// <spec>
method SumPositive(a: seq<int>) returns (r: int)
    ensures r == SumPos(a)
// </spec>
// <code>
{
    r := 0;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == SumPos(a[i..])
    {
        i := i - 1;
        assert a[i..][1..] == a[i + 1..];
        r := (if a[i] > 0 then a[i] else 0) + r;
    }
    assert a[0..] == a;
}
// </code>
