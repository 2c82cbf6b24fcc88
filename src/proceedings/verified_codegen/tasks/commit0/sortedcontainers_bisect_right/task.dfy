// Following is the block for necessary definitions
// <preamble>
function CountLessEq(s: seq<int>, k: int): int
{
    if |s| == 0 then 0 else (if s[0] <= k then 1 else 0) + CountLessEq(s[1..], k)
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
method BisectRight(a: seq<int>, k: int) returns (r: int)
    ensures r == CountLessEq(a, k)
// </spec>
// <code>
{
    r := 0;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == CountLessEq(a[i..], k)
    {
        i := i - 1;
        r := (if a[i] <= k then 1 else 0) + r;
    }
}
// </code>
