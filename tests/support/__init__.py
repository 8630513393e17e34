"""What the tests share: sample submissions, attacks, classes, hostile files (``from tests.support import subs``)."""
