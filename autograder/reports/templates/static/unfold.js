// A link to a part of the page folded in a <details> (a similar pair's side-by-side view) opens
// the <details> around it first, then goes there.
function unfoldTarget() {
  var id = decodeURIComponent(window.location.hash.slice(1));
  var target = id && document.getElementById(id);
  if (!target) { return; }
  for (var node = target.parentElement; node; node = node.parentElement) {
    if (node.tagName === "DETAILS" && !node.open) { node.open = true; }
  }
  target.scrollIntoView();
}
window.addEventListener("hashchange", unfoldTarget);
unfoldTarget();
