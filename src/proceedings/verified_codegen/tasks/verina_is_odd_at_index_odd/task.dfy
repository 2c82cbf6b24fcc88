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
method isOddAtIndexOdd(a: seq<int>) returns (result: bool)
    ensures result <==> (forall i :: 0 <= i < |a| && i % 2 == 1 ==> a[i] % 2 == 1)
// </spec>
// <code>
{
    result := true;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant result <==> (forall k :: 0 <= k < i && k % 2 == 1 ==> a[k] % 2 == 1)
    {
        if i % 2 == 1 && a[i] % 2 != 1 {
            result := false;
        }
        i := i + 1;
    }
}
// </code>
