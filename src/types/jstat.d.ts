// jstat ships no types; these are the two functions of its Student's t distribution
// that the eval verdicts use (src/evals/verdict.ts).
declare module 'jstat' {
  interface StudentT {
    /** The quantile: x such that P(T ≤ x) = p, for `dof` degrees of freedom (any real > 0). */
    inv(p: number, dof: number): number;
    /** P(T ≤ x). */
    cdf(x: number, dof: number): number;
  }
  const jStat: { studentt: StudentT };
  export default jStat;
}
