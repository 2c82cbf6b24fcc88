// Following is the block for necessary definitions
// <preamble>
function SumDbl(s: seq<int>): int
{
    if |s| == 0 then 0 else SumDbl(s[..|s| - 1]) + 2 * s[|s| - 1]
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
method SumDoubled(a: seq<int>) returns (r: int)
    ensures r == SumDbl(a)
// </spec>
// <code>
{
    r := 0;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant r == SumDbl(a[..i])
    {
        assert a[..i + 1][..i] == a[..i];
        r := r + 2 * a[i];
        i := i + 1;
    }
    assert a[..|a|] == a;
}
// </code>
