// gate/ci-labels.ts: the commit, branch and job link of the CI build, from each CI's variables.
import t from 'tap';
import { ciLabels } from '../../src/gate/ci-labels.js';

t.test('GitHub Actions: a pull request is labelled with its head branch and its run link', async (t) => {
  t.same(
    ciLabels({ GITHUB_SHA: 'abc123', GITHUB_REF_NAME: '123/merge', GITHUB_HEAD_REF: 'feature', GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '77' }),
    { commit: 'abc123', branch: 'feature', url: 'https://github.com/o/r/actions/runs/77' },
  );
  t.same(ciLabels({ GITHUB_SHA: 'abc123', GITHUB_HEAD_REF: '', GITHUB_REF_NAME: 'main' }), { commit: 'abc123', branch: 'main' }, 'an empty head ref (a push) is skipped');
});

t.test('GitLab, Jenkins, CircleCI and Buildkite variables', async (t) => {
  t.same(ciLabels({ CI_COMMIT_SHA: 'c1', CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'mr', CI_COMMIT_REF_NAME: 'main', CI_JOB_URL: 'https://gitlab/job/1' }), { commit: 'c1', branch: 'mr', url: 'https://gitlab/job/1' });
  t.same(ciLabels({ GIT_COMMIT: 'j1', BRANCH_NAME: 'dev', BUILD_URL: 'https://jenkins/2' }), { commit: 'j1', branch: 'dev', url: 'https://jenkins/2' });
  t.same(ciLabels({ CIRCLE_SHA1: 'k1', CIRCLE_BRANCH: 'b', CIRCLE_BUILD_URL: 'https://circle/3' }), { commit: 'k1', branch: 'b', url: 'https://circle/3' });
  t.same(ciLabels({ BUILDKITE_COMMIT: 'bk', BUILDKITE_BRANCH: 'x', BUILDKITE_BUILD_URL: 'https://bk/4' }), { commit: 'bk', branch: 'x', url: 'https://bk/4' });
});

t.test('outside CI: no field at all (not undefined fields)', async (t) => {
  const labels = ciLabels({ HOME: '/root' });
  t.same(Object.keys(labels), []);
  t.same(ciLabels({ GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'o/r' }), {}, 'no run id: no GitHub link');
});
