# The Lab 05 grader in a container, for local batches where the namespace jail is refused: a
# non-root instructor on Ubuntu 24.04 or macOS, a course's own Docker or Podman host. The grader
# is root inside and runs submissions in the uid mode (a separate uid, a seccomp filter with no
# network, Landlock keeping each child to Python and its own files). docs/CONTAINER.md has it all:
#   docker build -t lab05-grader .
#   mkdir -p out && docker run --rm -v "$PWD/submissions:/class:ro" -v "$PWD/out:/out" \
#     -v "$PWD/../shared/cranfield:/cranfield:ro" lab05-grader grade /class --out /out
# BASE: Debian 12 by default (Python 3.11); any Debian or Ubuntu image works, e.g. ubuntu:22.04
# (Gradescope's Python 3.10). Children run in /opt/lab05-child: requirements/child.txt only.
ARG BASE=debian:bookworm
FROM ${BASE}
# libseccomp2: the children's seccomp filter
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      python3 python3-venv python3-pip libseccomp2 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# the grader's packages first (a layer rebuilt only when the requirements change), and the
# environment submissions run in: what grading.yml allows, pinned as on the platforms (readable
# by the sandbox uids)
COPY requirements/ /lab05/repo/requirements/
RUN python3 -m venv /opt/lab05-child \
 && /opt/lab05-child/bin/pip install --quiet --no-cache-dir -r /lab05/repo/requirements/child.txt \
 && chmod -R a+rX /opt/lab05-child
RUN python3 -m venv /lab05/venv \
 && /lab05/venv/bin/pip install --quiet --no-cache-dir \
      -r /lab05/repo/requirements/lab.txt -r /lab05/repo/requirements/grader.txt \
      -r /lab05/repo/requirements/batch.txt
COPY . /lab05/repo/
# the grader, its hidden reference and its cache: the root's alone (children run as uid 64000+),
# or OWNER's, the uid a Pod Security "restricted" pod runs the grader as in the namespace jail
# (--build-arg OWNER=65532: deploy/kubernetes/restricted/grade.yaml); the entrypoint where anyone
# may start it (to refuse a --user with a message)
ARG OWNER=0
RUN install -m 755 /lab05/repo/autograder/local/templates/entrypoint /usr/local/bin/lab05-entrypoint \
 && mkdir -p /lab05/cache && chown -R "${OWNER}:${OWNER}" /lab05 && chmod -R go-rwx /lab05
ENV AUTOGRADER_CACHE=/lab05/cache IR_DATASETS_HOME=/lab05/cache/ir_datasets PYTHONDONTWRITEBYTECODE=1
WORKDIR /
ENTRYPOINT ["/usr/local/bin/lab05-entrypoint"]
CMD ["--help"]
