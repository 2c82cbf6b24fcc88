// Following is the block for necessary definitions
// <preamble>
function AllNonNeg(s: seq<int>): bool
{
    if |s| == 0 then true else AllNonNeg(s[..|s| - 1]) && s[|s| - 1] >= 0
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
method AllNonNegative(a: seq<int>) returns (r: bool)
    ensures r == AllNonNeg(a)
// </spec>
// <code>
{
    r := true;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant r == AllNonNeg(a[..i])
    {
        assert a[..i + 1][..i] == a[..i];
        r := r && a[i] >= 0;
        i := i + 1;
    }
    assert a[..|a|] == a;
}
// </code>
