document.querySelectorAll("input[data-filter]").forEach(function (box) {
  var tables = box.getAttribute("data-filter").split(" ").map(function (id) {
    return document.getElementById(id);
  }).filter(Boolean);
  var status = document.getElementById(box.id + "-status");
  box.addEventListener("input", function () {
    var words = box.value.trim().toLowerCase(), shown = 0, total = 0;
    tables.forEach(function (table, index) {
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var match = !words || row.textContent.toLowerCase().indexOf(words) >= 0;
        row.hidden = !match;
        if (index === 0) { total += 1; shown += match ? 1 : 0; }
      });
    });
    status.textContent = words ? shown + " of " + total + " " + box.getAttribute("data-noun") + " shown" : "";
  });
});
