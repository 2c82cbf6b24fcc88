// Following is the block for necessary definitions
// <preamble>
function Above(s: seq<int>, k: int): int
{
    if |s| == 0 then 0 else Above(s[..|s| - 1], k) + (if s[|s| - 1] > k then 1 else 0)
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
method CountGreater(a: seq<int>, k: int) returns (r: int)
    ensures r == Above(a, k)
// </spec>
// <code>
{
    r := 0;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant r == Above(a[..i], k)
    {
        assert a[..i + 1][..i] == a[..i];
        r := r + (if a[i] > k then 1 else 0);
        i := i + 1;
    }
    assert a[..|a|] == a;
}
// </code>
