// Following is the block for necessary definitions
// <preamble>
function Odds(s: seq<int>): int
{
    if |s| == 0 then 0 else Odds(s[..|s| - 1]) + (if s[|s| - 1] % 2 == 1 then 1 else 0)
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
method CountOdd(a: seq<int>) returns (r: int)
    ensures r == Odds(a)
// </spec>
// <code>
{
    r := 0;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant r == Odds(a[..i])
    {
        assert a[..i + 1][..i] == a[..i];
        r := r + (if a[i] % 2 == 1 then 1 else 0);
        i := i + 1;
    }
    assert a[..|a|] == a;
}
// </code>
