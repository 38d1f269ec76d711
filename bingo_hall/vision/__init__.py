"""CCTV check of every ball: camera sources, ball recognition and the synthetic ball renderer."""
