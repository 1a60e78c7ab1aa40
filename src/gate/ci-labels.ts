/** What a history entry is labelled with: the build that measured it. */
export interface BuildLabels {
  /** The commit measured (full SHA as the CI gives it). */
  commit?: string;
  /** The branch (or merge request source branch) measured. */
  branch?: string;
  /** A link to the CI job. */
  url?: string;
}

/**
 * The commit, branch and job link of the CI build this process runs in, from the variables GitHub
 * Actions, GitLab CI, Jenkins, Azure Pipelines, CircleCI and Buildkite set; fields no variable gives
 * are absent. On a pull request GitHub's `GITHUB_REF_NAME` is `123/merge`: the head branch is in
 * `GITHUB_HEAD_REF`.
 */
export function ciLabels(env: NodeJS.ProcessEnv = process.env): BuildLabels {
  const first = (...names: string[]) =>
    names.map((name) => env[name]).find((value) => value !== undefined && value !== '');
  const commit = first(
    'GITHUB_SHA',
    'CI_COMMIT_SHA',
    'GIT_COMMIT',
    'BUILD_SOURCEVERSION',
    'CIRCLE_SHA1',
    'BUILDKITE_COMMIT',
  );
  const branch = first(
    'GITHUB_HEAD_REF',
    'GITHUB_REF_NAME',
    'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME',
    'CI_COMMIT_REF_NAME',
    'BRANCH_NAME',
    'GIT_BRANCH',
    'BUILD_SOURCEBRANCHNAME',
    'CIRCLE_BRANCH',
    'BUILDKITE_BRANCH',
  );
  const github =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
      : undefined;
  const url = github ?? first('CI_JOB_URL', 'BUILD_URL', 'CIRCLE_BUILD_URL', 'BUILDKITE_BUILD_URL');
  return {
    ...(commit !== undefined ? { commit } : {}),
    ...(branch !== undefined ? { branch } : {}),
    ...(url !== undefined ? { url } : {}),
  };
}
