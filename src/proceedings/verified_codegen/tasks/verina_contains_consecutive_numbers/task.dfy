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
method containsConsecutiveNumbers(a: seq<int>) returns (result: bool)
    ensures result <==> (exists i :: 0 <= i < |a| - 1 && a[i] + 1 == a[i + 1])
// </spec>
// <code>
{
    result := false;
    var i := 0;
    while i + 1 < |a|
        invariant 0 <= i
        invariant i + 1 <= |a| || i == 0
        invariant result <==> (exists k :: 0 <= k < i && a[k] + 1 == a[k + 1])
    {
        if a[i] + 1 == a[i + 1] {
            result := true;
        }
        i := i + 1;
    }
}
// </code>
