// Following is the block for necessary definitions
// <preamble>
function CountLess(s: seq<int>, k: int): int
{
    if |s| == 0 then 0 else (if s[0] < k then 1 else 0) + CountLess(s[1..], k)
}
function CountEq(s: seq<int>, k: int): int
{
    if |s| == 0 then 0 else (if s[0] == k then 1 else 0) + CountEq(s[1..], k)
}
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
lemma {:induction false} BisectCount(s: seq<int>, k: int)
    ensures CountLess(s, k) + CountEq(s, k) == CountLessEq(s, k)
// </spec>
// <code>
{
    if |s| > 0 {
        BisectCount(s[1..], k);
    }
}
// </code>
