# The two commands a newcomer needs: `make demo` and `make test`. Both install what is missing first.
PY ?= python3
PIP = $(PY) -m pip
# AUTO: build the CUDA engine when nvcc is found; OFF/ON to force.
export NDIMG_CUDA ?= AUTO

.PHONY: install test demo dev bench clean

# Debian packages: the slide reader's codec libraries (cpp/src/io), and libvips, a third-party slide
# writer the tests use. apt-get them when missing and we are root.
DEBS = libturbojpeg0-dev libjpeg62-turbo-dev libdeflate-dev libzstd-dev libopenjp2-7-dev libwebp-dev libvips-tools
PY_DEPS = "scikit-build-core>=0.10" "nanobind>=2.4" "numpy>=1.24" "scipy>=1.10" "scikit-image==0.26.*" \
          pytest tifffile imagecodecs pillow openslide-python openslide-bin matplotlib tqdm dask distributed zarr \
          PyWavelets array-api-compat array-api-strict scikit-learn
install:
	@missing=$$(for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  (apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $$missing >/dev/null) \
	  || echo "warning: could not install $$missing"; fi
	$(PIP) install -q $(PY_DEPS)
	@# PyTorch CPU tensors in the tests. Pinned: this release's CPU build lies on our machines' disk, which pip
	@# takes; elsewhere PyPI's build (it brings the CUDA libraries, several GB)
	$(PY) -c "import torch" 2>/dev/null || $(PIP) install -q "torch==2.13.0"
	$(PIP) install --no-build-isolation --no-deps -v . > build-install.log 2>&1 || (tail -50 build-install.log; exit 1)

test: install
	$(PY) -m pytest -q tests

demo: install
	$(PY) -m ndimg.demo --out demo-out
	@# issue 30's coins demo (spectral clustering over the array namespace), small scales on the CPU; with a
	@# GPU: `--device both` and the scales 0.1 to 1.0 (its default) give the CPU/GPU crossover
	$(PY) examples/coins_segmentation.py --device cpu --scales 0.1,0.2,0.3 --out demo-out

bench: install
	$(PY) bench/run.py

# developer build: the extension lands in python/ndimg, run with PYTHONPATH=python
dev:
	cmake -S . -B build/dev -G Ninja -DNDIMG_PYTHON=ON -DNDIMG_CUDA=$(NDIMG_CUDA) > /dev/null && ninja -C build/dev

clean:
	rm -rf build python/ndimg/_core*.so build-install.log
