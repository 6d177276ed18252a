#!/usr/bin/env bash
# Creates one task of every capability against a running `npm start`, waits for each, downloads
# its files into ./try-out/ and describes them (ffprobe when installed).
#   BASE=http://127.0.0.1:8787 KEY=sk_us_... bash scripts/try-every-capability.sh
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:8787}
KEY=${KEY:?set KEY to the API key that npm start printed}
OUT=${OUT:-try-out}
mkdir -p "$OUT"
auth=(-H "Authorization: Bearer $KEY")

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {'d': d}))" "$1"; }

# A small PNG to use as an input, served as a data URI.
PNG=$(python3 - <<'PY'
import base64, struct, zlib
w, h = 480, 360
rows = b"".join(b"\x00" + bytes(v for x in range(w) for v in (x * 255 // w, y * 255 // h, 160)) for y in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
print("data:image/png;base64," + base64.b64encode(png).decode())
PY
)
IMG="{\"type\":\"data_uri\",\"data_uri\":\"$PNG\"}"

create() { # name path body → task id (the body goes through a file: data URIs are long)
  printf '%s' "$3" > "$OUT/$1.request.json"
  curl -sS -X POST "${auth[@]}" -H "Idempotency-Key: try-$1-$RANDOM$RANDOM" -H 'Content-Type: application/json' \
    --data-binary "@$OUT/$1.request.json" "$BASE$2" | json "d.get('task_id') or d"
}

wait_for() { # task id → final envelope (file)
  local id=$1 file=$OUT/$2.json
  for _ in $(seq 1 240); do
    curl -sS "${auth[@]}" "$BASE/v1/tasks/$id" > "$file"
    case $(json "d['status']" < "$file") in succeeded|failed|canceled) return;; esac
    sleep 1
  done
}

describe() { # name → download artifacts and describe them
  local name=$1 file=$OUT/$1.json
  printf '%-22s %-9s %-28s credits %s\n' "$name" "$(json "d['status']" < "$file")" "$(json "d['resolved_model']" < "$file")" "$(json "d['billing']['net_charged_credits']" < "$file")"
  python3 -c "import json,sys; [print(a['url'], a['artifact_id'], a['content_type']) for a in (json.load(open(sys.argv[1]))['output'] or {}).get('artifacts', [])]" "$file" |
  while read -r url id type; do
    ext=${type#*/}; ext=${ext/mpeg/mp3}; ext=${ext/quicktime/mov}
    curl -sS "${auth[@]}" -o "$OUT/$name-$id.$ext" "$url"
    if command -v ffprobe >/dev/null; then
      echo "    $(ffprobe -v error -show_entries format=format_name,duration:stream=codec_name,width,height,sample_rate -of compact=p=0:nk=0 "$OUT/$name-$id.$ext" | tr '\n' ' ')"
    else
      echo "    $(file -b "$OUT/$name-$id.$ext")"
    fi
  done
  python3 -c "import json,sys; t=(json.load(open(sys.argv[1]))['output'] or {}).get('text'); print('    text:', t[:160] + '…') if t else None" "$file"
}

declare -A tasks
tasks[text_to_image]=$(create t2i /v1/images/generations '{"prompt":"a red fox in the snow","count":2,"canvas":{"type":"preset","tier":"1K","aspect":"1:1"}}')
tasks[image_to_image]=$(create i2i /v1/images/image-to-image "{\"prompt\":\"autumn colours\",\"images\":[$IMG],\"canvas\":{\"type\":\"preset\",\"tier\":\"1K\",\"aspect\":\"source\"}}")
tasks[image_edit]=$(create edit /v1/images/edits "{\"prompt\":\"paint the corner\",\"images\":[$IMG],\"edit_regions\":[{\"image_index\":0,\"x\":0,\"y\":0,\"width\":0.5,\"height\":0.5}]}")
tasks[image_to_text]=$(create i2t /v1/images/responses "{\"prompt\":\"What colours dominate?\",\"images\":[$IMG]}")
tasks[video_prompt_enhance]=$(create enh /v1/videos/prompts/enhance '{"prompt":"a fox running through snow"}')
tasks[text_to_video]=$(create t2v /v1/videos/text-to-video '{"prompt":"waves on a beach","duration":5,"resolution":"480p","generate_audio":true,"return_last_frame":true}')
tasks[image_to_video]=$(create i2v /v1/videos/image-to-video "{\"image\":$IMG,\"prompt\":\"slow zoom\",\"resolution\":\"480p\"}")
tasks[reference_to_video]=$(create r2v /v1/videos/reference-to-video "{\"prompt\":\"the subject walks\",\"references\":[{\"kind\":\"image\",\"media\":$IMG,\"role\":\"subject\"}],\"resolution\":\"480p\"}")
tasks[frames_to_video]=$(create f2v /v1/videos/frames-to-video "{\"first_frame\":$IMG,\"last_frame\":$IMG,\"resolution\":\"480p\"}")
tasks[text_to_music]=$(create music /v1/music/text-to-music '{"model":"auto","prompt":"calm lo-fi piano with rain","instrumental":true}')
tasks[text_to_speech]=$(create tts /v1/audio/speech '{"voice":"English_radiant_girl","input":"Hello! This is the sandbox speaking, with no provider account at all.","format":"wav"}')
for name in "${!tasks[@]}"; do wait_for "${tasks[$name]}" "$name"; done

# Extension and understanding take the text-to-video output as their source video.
MP4_ID=$(python3 -c "import json; print(json.load(open('$OUT/text_to_video.json'))['output']['artifacts'][0]['artifact_id'])")
VID="{\"type\":\"artifact\",\"artifact_id\":\"$MP4_ID\"}"
tasks[video_extend]=$(create ext /v1/videos/extend "{\"video\":$VID,\"direction\":\"after\",\"instruction\":\"keep going\",\"duration\":10,\"resolution\":\"480p\"}")
tasks[video_to_text]=$(create v2t /v1/videos/responses "{\"model\":\"auto\",\"prompt\":\"What happens?\",\"video\":$VID}")
wait_for "${tasks[video_extend]}" video_extend
wait_for "${tasks[video_to_text]}" video_to_text

for name in text_to_image image_to_image image_edit image_to_text video_prompt_enhance text_to_video image_to_video reference_to_video frames_to_video video_extend video_to_text text_to_music text_to_speech; do
  describe "$name"
done
