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
method BinarySearch(a: seq<int>, key: int) returns (result: nat)
    requires forall i, j :: 0 <= i < j < |a| ==> a[i] <= a[j]
    ensures result <= |a|
    ensures forall i :: 0 <= i < result ==> a[i] < key
    ensures forall i :: result <= i < |a| ==> a[i] >= key
// </spec>
// <code>
{
    var lo, hi := 0, |a|;
    while lo < hi
        invariant 0 <= lo <= hi <= |a|
        invariant forall i :: 0 <= i < lo ==> a[i] < key
        invariant forall i :: hi <= i < |a| ==> a[i] >= key
    {
        var mid := (lo + hi) / 2;
        if a[mid] < key {
            lo := mid + 1;
        } else {
            hi := mid;
        }
    }
    result := lo;
}
// </code>
