document.querySelectorAll("table.sortable").forEach(function (table) {
  var headers = table.querySelectorAll("th.sortable");
  headers.forEach(function (header) {
    header.addEventListener("click", function () {
      var column = header.cellIndex, body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var ascending = header.getAttribute("aria-sort") !== "ascending";
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-value") || a.cells[column].textContent;
        var y = b.cells[column].getAttribute("data-value") || b.cells[column].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
      headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    });
  });
});
