FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY server ./server
COPY examples ./examples
RUN pip install --no-cache-dir .
ENV HULLDOWN_HOST=0.0.0.0 HULLDOWN_PORT=8000 HULLDOWN_EXAMPLES_DIR=/app/examples
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz').status == 200 else 1)"
CMD ["hulldown", "serve"]
