// Following is the block for necessary definitions
// <preamble>
function Cubes(s: seq<int>): int
{
    if |s| == 0 then 0 else Cubes(s[..|s| - 1]) + s[|s| - 1] * s[|s| - 1] * s[|s| - 1]
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
method SumCubes(a: seq<int>) returns (r: int)
    ensures r == Cubes(a)
// </spec>
// <code>
{
    r := 0;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant r == Cubes(a[..i])
    {
        assert a[..i + 1][..i] == a[..i];
        r := r + a[i] * a[i] * a[i];
        i := i + 1;
    }
    assert a[..|a|] == a;
}
// </code>
