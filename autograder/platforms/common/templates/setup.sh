#!/usr/bin/env bash
# Installs the Lab 05 grader where a platform builds its image, once, as root: Gradescope runs it
# as the autograder's setup.sh (source in /autograder/source), PrairieLearn's Dockerfile runs it
# with AUTOGRADER_SOURCE=/lab05/source. AUTOGRADER_SKIP_INSTALL=1 skips installing (the tests' simulation);
# the old names LAB05_SOURCE, LAB05_CHILD_ENV and LAB05_SKIP_INSTALL are still read.
# Student code runs in a second environment, /opt/lab05-child, holding only what grading.yml's
# allowed_imports names, at the versions requirements-child.txt pins (as in a local batch).
set -euo pipefail
SOURCE="${AUTOGRADER_SOURCE:-${LAB05_SOURCE:-${AUTOGRADER_ROOT:-/autograder}/source}}"
CHILD_ENV="${AUTOGRADER_CHILD_ENV:-${LAB05_CHILD_ENV:-/opt/lab05-child}}"
if [ -z "${AUTOGRADER_SKIP_INSTALL:-${LAB05_SKIP_INSTALL:-}}" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-pip libseccomp2
  python3 -m venv "$SOURCE/venv"
  "$SOURCE/venv/bin/pip" install --quiet --no-cache-dir -r "$SOURCE/requirements.txt"
  python3 -m venv "$CHILD_ENV"
  "$CHILD_ENV/bin/pip" install --quiet --no-cache-dir -r "$SOURCE/requirements-child.txt"
  chmod -R a+rX "$CHILD_ENV"
fi
# the unprivileged user student code runs as
id -u lab05-student >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin lab05-student
# the grader, its hidden reference and its data: unreadable to that user
chmod -R go-rwx "$SOURCE"
