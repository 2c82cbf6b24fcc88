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
method isSorted(a: seq<int>) returns (result: bool)
    ensures result <==> (forall i :: 0 <= i < |a| - 1 ==> a[i] <= a[i + 1])
// </spec>
// <code>
{
    result := true;
    var i := 0;
    while i + 1 < |a|
        invariant 0 <= i
        invariant i + 1 <= |a| || i == 0
        invariant result <==> (forall k :: 0 <= k < i ==> a[k] <= a[k + 1])
    {
        if a[i] > a[i + 1] {
            result := false;
        }
        i := i + 1;
    }
}
// </code>
