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
method rotate(a: seq<int>, offset: int) returns (result: seq<int>)
    requires offset >= 0
    ensures |result| == |a|
    ensures forall i :: 0 <= i < |a| ==> result[i] == a[(i + offset) % |a|]
// </spec>
// <code>
{
    result := [];
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant |result| == i
        invariant forall k :: 0 <= k < i ==> result[k] == a[(k + offset) % |a|]
    {
        result := result + [a[(i + offset) % |a|]];
        i := i + 1;
    }
}
// </code>
