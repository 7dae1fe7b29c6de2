/** GitHub's limit on the body of an issue or pull-request comment, in characters (its API answers 422 beyond it). */
export const GITHUB_COMMENT_LIMIT = 65_536;
