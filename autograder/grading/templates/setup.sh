#!/usr/bin/env bash
# Installs the Lab 05 grader where a platform builds its image, once, as root: Gradescope runs it
# as the autograder's setup.sh (source in /autograder/source), PrairieLearn's Dockerfile runs it
# with LAB05_SOURCE=/lab05/source. LAB05_SKIP_INSTALL=1 skips installing (the tests' simulation).
set -euo pipefail
SOURCE="${LAB05_SOURCE:-${AUTOGRADER_ROOT:-/autograder}/source}"
if [ -z "${LAB05_SKIP_INSTALL:-}" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-pip python3-numpy
  python3 -m venv "$SOURCE/venv"
  "$SOURCE/venv/bin/pip" install --quiet --no-cache-dir -r "$SOURCE/requirements.txt"
fi
# the unprivileged user student code runs as
id -u lab05-student >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin lab05-student
# the grader, its hidden reference and its data: unreadable to that user
chmod -R go-rwx "$SOURCE"
