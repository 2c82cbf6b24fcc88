// Following is the block for necessary definitions
// <preamble>
function CountEven(s: seq<int>): int
{
    if |s| == 0 then 0 else (if s[0] % 2 == 0 then 1 else 0) + CountEven(s[1..])
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
method CountEvens(a: seq<int>) returns (r: int)
    ensures r == CountEven(a)
// </spec>
// <code>
{
    r := 0;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == CountEven(a[i..])
    {
        i := i - 1;
        assert a[i..][1..] == a[i + 1..];
        r := (if a[i] % 2 == 0 then 1 else 0) + r;
    }
    assert a[0..] == a;
}
// </code>
