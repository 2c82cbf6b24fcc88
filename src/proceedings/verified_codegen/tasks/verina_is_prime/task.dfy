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
method isPrime(n: nat) returns (result: bool)
    requires n >= 2
    ensures result <==> (forall k :: 2 <= k < n ==> n % k != 0)
// </spec>
// <code>
{
    result := true;
    var k := 2;
    while k < n
        invariant 2 <= k <= n
        invariant result <==> (forall j :: 2 <= j < k ==> n % j != 0)
    {
        if n % k == 0 {
            result := false;
        }
        k := k + 1;
    }
}
// </code>
