#!/usr/bin/env bash
# Installs the grader where a platform builds its image, once, as root: Gradescope runs it
# as the autograder's setup.sh (source in /autograder/source), PrairieLearn's Dockerfile runs it
# with AUTOGRADER_SOURCE=/grader/source. AUTOGRADER_SKIP_INSTALL=1 skips installing (the tests' simulation);
# the old names LAB05_SOURCE, LAB05_CHILD_ENV and LAB05_SKIP_INSTALL are still read, with a warning.
# Student code runs in a second environment, /opt/autograder-child, holding only what grading.yml's
# allowed_imports names, at the versions requirements-child.txt pins (as in a local batch).
set -euo pipefail
# setting NAME DEFAULT: $AUTOGRADER_NAME, else the old $LAB05_NAME with a warning on stderr naming
# the new one, else DEFAULT: autograder/environment.py's rule for the names it declares (a test
# checks that they agree)
setting() {
  local new="AUTOGRADER_$1" old="LAB05_$1"
  if [ -n "${!new:-}" ]; then
    printf '%s' "${!new}"
  elif [ -n "${!old:-}" ]; then
    echo "warning: \$$old is deprecated; set \$$new instead" >&2
    printf '%s' "${!old}"
  else
    printf '%s' "$2"
  fi
}
SOURCE="$(setting SOURCE "${AUTOGRADER_ROOT:-/autograder}/source")"
CHILD_ENV="$(setting CHILD_ENV /opt/autograder-child)"
if [ -z "$(setting SKIP_INSTALL "")" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-pip libseccomp2
  python3 -m venv "$SOURCE/venv"
  "$SOURCE/venv/bin/pip" install --quiet --no-cache-dir -r "$SOURCE/requirements.txt"
  python3 -m venv "$CHILD_ENV"
  "$CHILD_ENV/bin/pip" install --quiet --no-cache-dir -r "$SOURCE/requirements-child.txt"
  chmod -R a+rX "$CHILD_ENV"
fi
# the unprivileged user student code runs as (the engine's, whatever lab it grades)
id -u autograder-student >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin autograder-student
# the grader, its hidden reference and its data: unreadable to that user
chmod -R go-rwx "$SOURCE"
