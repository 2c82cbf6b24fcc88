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
method maxArray(a: seq<int>) returns (result: int)
    requires |a| > 0
    ensures forall k :: 0 <= k < |a| ==> result >= a[k]
    ensures exists k :: 0 <= k < |a| && result == a[k]
// </spec>
// <code>
{
    result := a[0];
    var i := 1;
    while i < |a|
        invariant 1 <= i <= |a|
        invariant forall k :: 0 <= k < i ==> result >= a[k]
        invariant exists k :: 0 <= k < i && result == a[k]
    {
        if a[i] > result {
            result := a[i];
        }
        i := i + 1;
    }
}
// </code>
