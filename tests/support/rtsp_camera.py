"""A network camera speaking RTSP, as most CCTV cameras do: GStreamer's RTSP server streams
the JPEG files `frame-0.jpg` … `frame-3.jpg` of a folder in a loop, 25 a second, as RTP/JPEG.
The files are read afresh every loop, so rewriting them changes the picture live.

Run by Debian's python3, not the project's: `python3 rtsp_camera.py FOLDER PORT`. It needs
python3-gi, gir1.2-gst-rtsp-server-1.0, gstreamer1.0-plugins-good (multifilesrc, rtpjpegpay)
and gstreamer1.0-plugins-bad (jpegparse); scripts/ensure-services.sh installs them. It prints
"ready" once it listens on 127.0.0.1:PORT/exit.
"""

import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402 (after the versions)


def main(folder: str, port: str) -> None:
    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(port)
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(
        f"( multifilesrc location={folder}/frame-%d.jpg loop=true stop-index=3 "
        "caps=image/jpeg,framerate=25/1 ! jpegparse ! rtpjpegpay name=pay0 pt=26 )"
    )
    factory.set_shared(True)
    server.get_mount_points().add_factory("/exit", factory)
    server.attach(None)
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main(*sys.argv[1:])
