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
method hasOnlyOneDistinctElement(a: seq<int>) returns (result: bool)
    requires |a| > 0
    ensures result <==> (forall i :: 0 <= i < |a| ==> a[i] == a[0])
// </spec>
// <code>
{
    result := true;
    var i := 1;
    while i < |a|
        invariant 1 <= i <= |a|
        invariant result <==> (forall k :: 0 <= k < i ==> a[k] == a[0])
    {
        if a[i] != a[0] {
            result := false;
        }
        i := i + 1;
    }
}
// </code>
