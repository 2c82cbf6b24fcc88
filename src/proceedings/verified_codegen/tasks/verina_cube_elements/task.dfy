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
method cubeElements(a: seq<int>) returns (result: seq<int>)
    ensures |result| == |a|
    ensures forall i :: 0 <= i < |a| ==> result[i] == a[i] * a[i] * a[i]
// </spec>
// <code>
{
    result := [];
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant |result| == i
        invariant forall k :: 0 <= k < i ==> result[k] == a[k] * a[k] * a[k]
    {
        result := result + [a[i] * a[i] * a[i]];
        i := i + 1;
    }
}
// </code>
