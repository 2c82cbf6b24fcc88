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
method SquareRoot(N: nat) returns (result: nat)
    ensures result * result <= N && N < (result + 1) * (result + 1)
// </spec>
// <code>
{
    result := 0;
    while (result + 1) * (result + 1) <= N
        invariant result * result <= N
        decreases N - result * result
    {
        result := result + 1;
    }
}
// </code>
