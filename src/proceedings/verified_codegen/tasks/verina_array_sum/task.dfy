// Following is the block for necessary definitions
// <preamble>
function SumTo(s: seq<int>): int
{
    if |s| == 0 then 0 else SumTo(s[..|s| - 1]) + s[|s| - 1]
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
method ArraySum(a: seq<int>) returns (r: int)
    requires |a| > 0
    ensures r == SumTo(a)
// </spec>
// <code>
{
    r := 0;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant r == SumTo(a[..i])
    {
        assert a[..i + 1][..i] == a[..i];
        r := r + a[i];
        i := i + 1;
    }
    assert a[..|a|] == a;
}
// </code>
