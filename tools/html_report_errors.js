// Runs first in the HTML report: any script error (Chart.js's or
// html_report.js's) shows at the top of the page as #report-error, so a
// reader sees that the page is incomplete and a test can tell.
window.addEventListener('error', function (event) {
  var marker = document.getElementById('report-error') || document.createElement('div');
  marker.id = 'report-error';
  marker.textContent = (marker.textContent ? marker.textContent + '; ' : 'This report failed to draw: ') +
    event.message + (event.lineno ? ' (line ' + event.lineno + ')' : '');
  document.body.insertBefore(marker, document.body.firstChild);
});
