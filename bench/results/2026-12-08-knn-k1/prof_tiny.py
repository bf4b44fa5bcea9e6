# ncu target: tiny k = 1 KNN through build A (cubins_old), build B (cubins) and flashlib, each shape 3 times.
import os, sys
sys.path.insert(0, "bench"); sys.path.insert(0, "runtime/python")
import torch
import library_knn_bench as lib
from library_knn_shapes import Shape
from cakeir import kmeans as cake_kmeans
impls = lib.Impls(torch, "bench/out/knnlib/cubins", lib.DEFAULT_PEERS, False)
a = cake_kmeans.Kernels("bench/out/knnlib/cubins_old")
for (b, q, m, d) in [(1, 1, 1, 64), (1, 1404, 21, 64), (1, 1000, 1, 256), (4, 174, 3, 256)]:
    s = Shape("knn", b, q, m, d, 1, b > 1)
    x, c, _ = lib.make_inputs(torch, s, 7)
    fl = impls.for_shape(s)["flashlib"]
    for _ in range(3):
        a.knn(x, c, 1); impls.cake.knn(x, c, 1); fl(x, c)
    torch.cuda.synchronize()
print("done")
