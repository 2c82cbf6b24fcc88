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
method hasCommonElement(a: seq<int>, b: seq<int>) returns (result: bool)
    requires |a| > 0 && |b| > 0
    ensures result <==> (exists i, j :: 0 <= i < |a| && 0 <= j < |b| && a[i] == b[j])
// </spec>
// <code>
{
    result := false;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant result <==> (exists p, q :: 0 <= p < i && 0 <= q < |b| && a[p] == b[q])
    {
        var j := 0;
        while j < |b|
            invariant 0 <= j <= |b|
            invariant result <==> (exists p, q :: ((0 <= p < i && 0 <= q < |b|) || (p == i && 0 <= q < j)) && a[p] == b[q])
        {
            if a[i] == b[j] {
                result := true;
            }
            j := j + 1;
        }
        i := i + 1;
    }
}
// </code>
