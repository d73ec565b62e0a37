// The join page: the play address and its QR code, large, for a class to scan from the projector.
"use strict";

(async () => {
  try {
    const j = await M.api("/join");
    document.getElementById("join-play").textContent = j.play;
    const qr = document.getElementById("join-qr");
    qr.innerHTML = j.qr_svg;  // made by the server from the address (segno), not from a visitor's text
    const svg = qr.querySelector("svg");
    if (svg) { svg.setAttribute("role", "img"); svg.setAttribute("aria-label", `QR code for ${j.play}`); }
    document.getElementById("join-others").textContent = j.urls.length > 1 ? "Other addresses of this computer: " + j.urls.slice(1).join(", ") : "";
    document.body.dataset.ready = "1";
  } catch (err) { M.flash(err.message); }
})();
