window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details:not([open])").forEach(function (d) {
    d.setAttribute("data-printed", ""); d.open = true;
  });
});
window.addEventListener("afterprint", function () {
  document.querySelectorAll("details[data-printed]").forEach(function (d) {
    d.removeAttribute("data-printed"); d.open = false;
  });
});
