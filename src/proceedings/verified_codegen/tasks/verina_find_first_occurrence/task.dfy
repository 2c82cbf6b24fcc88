// Following is the block for necessary definitions
// <preamble>
function FirstIndex(s: seq<int>, target: int): int
{
    if |s| == 0 then -1 else if s[0] == target then 0 else if FirstIndex(s[1..], target) == -1 then -1 else FirstIndex(s[1..], target) + 1
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
method FindFirstOccurrence(arr: seq<int>, target: int) returns (r: int)
    requires forall p, q :: 0 <= p < q < |arr| ==> arr[p] <= arr[q]
    ensures r == FirstIndex(arr, target)
// </spec>
// <code>
{
    r := -1;
    var i := |arr|;
    while i > 0
        invariant 0 <= i <= |arr|
        invariant r == FirstIndex(arr[i..], target)
    {
        i := i - 1;
        assert arr[i..][1..] == arr[i + 1..];
        r := if arr[i] == target then 0 else if r == -1 then -1 else r + 1;
    }
    assert arr[0..] == arr;
}
// </code>
