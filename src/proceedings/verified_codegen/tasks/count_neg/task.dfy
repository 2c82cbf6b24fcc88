// Following is the block for necessary definitions
// <preamble>
function CountNeg(s: seq<int>): int
{
    if |s| == 0 then 0 else CountNeg(s[..|s| - 1]) + (if s[|s| - 1] < 0 then 1 else 0)
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
method CountNegative(a: seq<int>) returns (r: int)
    ensures r == CountNeg(a)
// </spec>
// <code>
{
    r := 0;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant r == CountNeg(a[..i])
    {
        assert a[..i + 1][..i] == a[..i];
        r := r + (if a[i] < 0 then 1 else 0);
        i := i + 1;
    }
    assert a[..|a|] == a;
}
// </code>
