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
method CalSum(N: nat) returns (result: nat)
    ensures 2 * result == N * (N + 1)
// </spec>
// <code>
{
    result := 0;
    var i := 0;
    while i < N
        invariant 0 <= i <= N
        invariant 2 * result == i * (i + 1)
    {
        i := i + 1;
        result := result + i;
    }
}
// </code>
