// jstat ships no types; these are the functions of its distributions that the eval
// verdicts use (src/evals/stats.ts): Student's t, the standard normal, the hypergeometric.
declare module 'jstat' {
  interface StudentT {
    /** The quantile: x such that P(T ≤ x) = p, for `dof` degrees of freedom (any real > 0). */
    inv(p: number, dof: number): number;
    /** P(T ≤ x). */
    cdf(x: number, dof: number): number;
  }
  interface Normal {
    /** The quantile of N(mean, sd²). */
    inv(p: number, mean: number, sd: number): number;
    /** P(X ≤ x) for N(mean, sd²). */
    cdf(x: number, mean: number, sd: number): number;
    pdf(x: number, mean: number, sd: number): number;
  }
  interface Hypergeometric {
    /** P(X ≤ k): k successes in n draws from a population of N holding m successes. */
    cdf(k: number, N: number, m: number, n: number): number;
  }
  const jStat: { studentt: StudentT; normal: Normal; hypgeom: Hypergeometric };
  export default jStat;
}
