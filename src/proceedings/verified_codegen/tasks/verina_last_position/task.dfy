// Following is the block for necessary definitions
// <preamble>
function LastIndex(s: seq<int>, elem: int): int
{
    if |s| == 0 then -1 else if LastIndex(s[1..], elem) != -1 then LastIndex(s[1..], elem) + 1 else if s[0] == elem then 0 else -1
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
method LastPosition(arr: seq<int>, elem: int) returns (r: int)
    requires forall p, q :: 0 <= p < q < |arr| ==> arr[p] <= arr[q]
    ensures r == LastIndex(arr, elem)
// </spec>
// <code>
{
    r := -1;
    var i := |arr|;
    while i > 0
        invariant 0 <= i <= |arr|
        invariant r == LastIndex(arr[i..], elem)
    {
        i := i - 1;
        assert arr[i..][1..] == arr[i + 1..];
        r := if r != -1 then r + 1 else if arr[i] == elem then 0 else -1;
    }
    assert arr[0..] == arr;
}
// </code>
