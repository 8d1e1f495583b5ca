FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /srv/kasauti
RUN apt-get update && apt-get install -y --no-install-recommends fonts-noto-core \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY apps ./apps
COPY kasauti ./kasauti
COPY worker ./worker
# torch is pinned and installed first (see README: a CPU or CUDA wheel of the same version).
RUN pip install --no-cache-dir torch==2.13.0 && pip install --no-cache-dir .
COPY . .
RUN useradd --create-home kasauti && mkdir -p var && chown -R kasauti var
USER kasauti
EXPOSE 8000
