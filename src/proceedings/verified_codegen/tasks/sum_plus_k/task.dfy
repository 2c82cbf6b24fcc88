// Following is the block for necessary definitions
// <preamble>
function Shifted(s: seq<int>, k: int): int
{
    if |s| == 0 then 0 else (s[0] + k) + Shifted(s[1..], k)
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
method SumPlusK(a: seq<int>, k: int) returns (r: int)
    ensures r == Shifted(a, k)
// </spec>
// <code>
{
    r := 0;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == Shifted(a[i..], k)
    {
        i := i - 1;
        assert a[i..][1..] == a[i + 1..];
        r := (a[i] + k) + r;
    }
    assert a[0..] == a;
}
// </code>
