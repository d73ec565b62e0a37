"""Where a class can reach the server: the addresses of this computer's networks, the play
address as a QR code (segno) for a phone's camera, on the terminal and on the join page.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import TextIO

import psutil
import segno

EVERY_NETWORK = {"0.0.0.0", "::", ""}


@dataclass(frozen=True)
class Address:
    """One address the server can be opened at."""

    interface: str
    ip: str

    def url(self, port: int, path: str = "/") -> str:
        host = f"[{self.ip}]" if ":" in self.ip else self.ip
        return f"http://{host}:{port}{path}"


def _usable(ip: str) -> bool:
    """An address another device on the network can use (not loopback, not link-local)."""
    try:
        a = ipaddress.ip_address(ip.split("%")[0])
    except ValueError:
        return False
    return not (a.is_loopback or a.is_link_local or a.is_unspecified or a.is_multicast)


def lan_addresses(host: str) -> list[Address]:
    """The addresses the class can open when the server listens on ``host``: for ``0.0.0.0``
    every IPv4 address of this computer's networks (``::``: IPv6 ones too), loopback left out;
    for one address, that address."""
    if host not in EVERY_NETWORK:
        return [Address("", host)]
    families = {socket.AF_INET} | ({socket.AF_INET6} if host == "::" else set())
    found: list[Address] = []
    for interface, addrs in sorted(psutil.net_if_addrs().items()):
        for a in addrs:
            if a.family in families and _usable(a.address) and all(f.ip != a.address for f in found):
                found.append(Address(interface, a.address.split("%")[0]))
    found.sort(key=lambda a: (":" in a.ip, a.interface, a.ip))
    return found


def qr_svg(url: str, scale: int = 8) -> str:
    """``url`` as a QR code, inline SVG (dark modules on white, a quiet zone round it); its title
    names the address without its fragment (a token there is for the camera, not for a tooltip)."""
    return str(segno.make(url, error="m").svg_inline(scale=scale, dark="#000", light="#fff", omitsize=True,
                                                        title=f"QR code for {url.split('#')[0]}"))


def print_qr(url: str, out: TextIO) -> None:
    """``url`` as a QR code drawn in the terminal with half-block characters."""
    segno.make(url, error="m").terminal(out=out, compact=True)
