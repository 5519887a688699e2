// The bundled page: esbuild's file loader copies shcard.wasm next to the bundle and gives its URL.
import wasm from "shcard/shcard.wasm";
import { run } from "./page.mjs";

run(new URL(wasm, document.baseURI));
