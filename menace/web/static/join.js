// The join page: the play address and its QR code, large, for a class to scan from the projector.
"use strict";

(async () => {
  try {
    const j = await M.api("/join");
    // the address to type has no token in it; the code may carry the play token (for whoever scans it)
    document.getElementById("join-play").textContent = j.play.split("#")[0];
    const signed = document.getElementById("join-signed-in");
    signed.hidden = !j.signed_in;
    if (j.signed_in) document.getElementById("join-token").textContent = decodeURIComponent(j.play.split("#token=")[1] || "");
    const qr = document.getElementById("join-qr");
    qr.dataset.address = j.play;
    qr.innerHTML = j.qr_svg;  // made by the server from the address (segno), not from a visitor's text
    const svg = qr.querySelector("svg");
    if (svg) { svg.setAttribute("role", "img"); svg.setAttribute("aria-label", `QR code for ${j.play.split("#")[0]}` + (j.signed_in ? ", with the play token" : "")); }
    document.getElementById("join-others").textContent = j.urls.length > 1 ? "Other addresses of this computer: " + j.urls.slice(1).join(", ") : "";
    document.body.dataset.ready = "1";
  } catch (err) { M.flash(err.message); }
})();
