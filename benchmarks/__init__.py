"""Benchmarks: miniautograd against torch, its Python peers and hand-written numpy.

``python benchmarks/run.py`` runs every workload in one single-threaded process and prints (and
writes into ``benchmarks/README.md``) a markdown table; ``--quick`` runs tiny sizes.
"""
