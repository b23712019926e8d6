import fox from '../../../../../fixtures/Fox/Fox.glb?vat';

document.body.textContent = `${fox.textureUrl} ${fox.description.texture.width}`;
