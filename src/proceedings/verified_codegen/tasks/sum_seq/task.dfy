// Following is the block for necessary definitions
// <preamble>
function Sum(s: seq<int>): int
{
    if |s| == 0 then 0 else s[0] + Sum(s[1..])
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
method SumSeq(a: seq<int>) returns (r: int)
    ensures r == Sum(a)
// </spec>
// <code>
{
    r := 0;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == Sum(a[i..])
    {
        i := i - 1;
        r := a[i] + r;
    }
}
// </code>
