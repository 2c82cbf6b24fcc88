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
method sumOfSquaresOfFirstNOddNumbers(n: nat) returns (result: nat)
    ensures result == (n * (2 * n - 1) * (2 * n + 1)) / 3
// </spec>
// <code>
{
    result := 0;
    var i := 0;
    while i < n
        invariant 0 <= i <= n
        invariant 3 * result == i * (2 * i - 1) * (2 * i + 1)
    {
        result := result + (2 * i + 1) * (2 * i + 1);
        i := i + 1;
    }
}
// </code>
