// Following is the block for necessary definitions
// <preamble>
// </preamble>

// Following is the block for potential helper specifications
// <helpers>
// </helpers>

// Following is the block for proofs of lemmas
// <proofs>
// </proofs>

// Following is the block for the main specification
// <spec>
method replace(arr: seq<int>, k: int) returns (result: seq<int>)
    ensures |result| == |arr|
    ensures forall i :: 0 <= i < |arr| ==> (arr[i] > k ==> result[i] == -1)
    ensures forall i :: 0 <= i < |arr| ==> (arr[i] <= k ==> result[i] == arr[i])
// </spec>
// <code>
{
    result := [];
    var i := 0;
    while i < |arr|
        invariant 0 <= i <= |arr|
        invariant |result| == i
        invariant forall k' :: 0 <= k' < i ==> result[k'] == (if arr[k'] > k then -1 else arr[k'])
    {
        result := result + [if arr[i] > k then -1 else arr[i]];
        i := i + 1;
    }
}
// </code>
