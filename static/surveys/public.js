/* The answer form: show only the groups of the category picked (without scripts every
   category's groups are shown, and the view takes the picked category's). No dependencies. */
(function () {
  "use strict";
  var form = document.getElementById("answer-form");
  if (!form) return;
  var radios = form.querySelectorAll('input[name="category"]');
  var groups = document.getElementById("f_groups");
  if (!radios.length || !groups) return;
  var sets = groups.querySelectorAll(".sv-subset");
  function update() {
    var picked = form.querySelector('input[name="category"]:checked');
    var key = picked ? picked.value : "";
    groups.hidden = !key;
    for (var i = 0; i < sets.length; i++) {
      sets[i].hidden = sets[i].getAttribute("data-category") !== key;
    }
  }
  for (var i = 0; i < radios.length; i++) radios[i].addEventListener("change", update);
  update();
})();
