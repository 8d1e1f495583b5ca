// Import page: drag and drop files onto the drop zone (they go into the form's file input, so
// the form posts them like chosen files), and list what will be uploaded.
(function () {
  "use strict";
  const zone = document.getElementById("dropzone");
  const input = document.getElementById("id_files");
  const list = document.getElementById("file-list");
  if (!zone || !input) return;

  function show() {
    list.textContent = "";
    for (const file of input.files) {
      const item = document.createElement("li");
      item.textContent = `${file.name} (${file.size.toLocaleString()} bytes)`;
      list.appendChild(item);
    }
  }

  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    if (!event.dataTransfer || !event.dataTransfer.files.length) return;
    // Dropped files are added to the ones already chosen.
    const merged = new DataTransfer();
    for (const file of input.files) merged.items.add(file);
    for (const file of event.dataTransfer.files) merged.items.add(file);
    input.files = merged.files;
    show();
  });
  input.addEventListener("change", show);
})();
