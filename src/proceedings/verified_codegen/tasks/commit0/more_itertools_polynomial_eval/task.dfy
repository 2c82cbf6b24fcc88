// Following is the block for necessary definitions
// <preamble>
function PolyEval(s: seq<int>, t: int): int
{
    if |s| == 0 then 0 else PolyEval(s[..|s| - 1], t) * t + s[|s| - 1]
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
method PolynomialEval(a: seq<int>, t: int) returns (r: int)
    ensures r == PolyEval(a, t)
// </spec>
// <code>
{
    r := 0;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant r == PolyEval(a[..i], t)
    {
        assert a[..i + 1][..i] == a[..i];
        r := r * t + a[i];
        i := i + 1;
    }
    assert a[..|a|] == a;
}
// </code>
