#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
SOURCE="${AUTOGRADER_ROOT:-/autograder}/source"
if [ -z "${LAB05_SKIP_INSTALL:-}" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-pip python3-numpy
  python3 -m venv "$SOURCE/venv"
  "$SOURCE/venv/bin/pip" install --quiet -r "$SOURCE/requirements.txt"
fi
# the unprivileged user student code runs as
id -u lab05-student >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin lab05-student
# the grader, its hidden reference and its data: unreadable to that user
chmod -R go-rwx "$SOURCE"
