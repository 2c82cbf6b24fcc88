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
method rotateRight(l: seq<int>, n: nat) returns (result: seq<int>)
    ensures |result| == |l|
    ensures forall i :: 0 <= i < |l| ==> result[i] == l[(i - n + |l|) % |l|]
// </spec>
// <code>
{
    result := [];
    if |l| == 0 {
        return;
    }
    var i := 0;
    while i < |l|
        invariant 0 <= i <= |l|
        invariant |result| == i
        invariant forall k :: 0 <= k < i ==> result[k] == l[(k - n + |l|) % |l|]
    {
        var j := (i - n + |l|) % |l|;
        result := result + [l[j]];
        i := i + 1;
    }
}
// </code>
